#!/bin/bash
# The image's health check, without mongosh: a MongoDB `ping` over the wire protocol (one OP_MSG) to FerretDB on
# HOST:PORT, healthy when the answer carries ok: 1. Exit 0 healthy, 1 not.
set -eu
host="${HOST:-127.0.0.1}"
case "$host" in '0.0.0.0') host=127.0.0.1 ;; '::' | '[::]') host=::1 ;; esac
host="${host#[}"
host="${host%]}"
port="${PORT:-27017}"
unhealthy() { echo "petstore-test-mongo unhealthy ($host:$port): $*" >&2; exit 1; }

exec 3<>"/dev/tcp/$host/$port" || unhealthy "no connection"
# OP_MSG (opCode 2013, 51 bytes): header, flagBits 0, one body section holding {ping: 1, $db: "admin"}.
printf '\x33\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\xdd\x07\x00\x00\x00\x00\x00\x00\x00\x1e\x00\x00\x00\x10ping\x00\x01\x00\x00\x00\x02$db\x00\x06\x00\x00\x00admin\x00\x00' >&3
# The answer's first 4 bytes are its length (little-endian); dd reads exactly what is asked, head would read ahead.
length="$(timeout 3 dd bs=4 count=1 iflag=fullblock status=none <&3 | od -An -tu4 | tr -d ' \n')"
case "$length" in '' | *[!0-9]*) unhealthy "no answer" ;; esac
[ "$length" -gt 4 ] && [ "$length" -lt 65536 ] || unhealthy "an answer of $length bytes"
reply="$(timeout 3 dd bs=$((length - 4)) count=1 iflag=fullblock status=none <&3 | od -An -v -tx1 | tr -d ' \n')"
# "ok" as the double 1.0: type 0x01, "ok\0", 00 00 00 00 00 00 f0 3f.
case "$reply" in *016f6b00000000000000f03f*) exit 0 ;; esac
unhealthy "no ok: 1 in the answer ($reply)"
