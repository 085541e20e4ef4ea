import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { bytesResponse, emptyResponse, type Answer } from "./response.ts";

type Encoding = "br" | "gzip" | "identity";

/** A static response body in every encoding we send, compressed once, each with its own strong ETag. */
export interface CompressedAsset {
  readonly type: string;
  readonly cacheControl: string;
  readonly bodies: Readonly<Record<Encoding, Buffer>>;
  readonly etags: Readonly<Record<Encoding, string>>;
}

export const compressAsset = (content: string | Buffer, type: string, cacheControl: string): CompressedAsset => {
  const identity = typeof content === "string" ? Buffer.from(content, "utf8") : content;
  const bodies = {
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    // Quality 9, not 11: a third of the size of the original at a twentieth of 11's time.
    br: brotliCompressSync(identity, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
    }),
  };
  const hash = createHash("sha256").update(identity).digest("base64url").slice(0, 22);
  return { type, cacheControl, bodies, etags: { identity: `"${hash}"`, gzip: `"${hash}-gz"`, br: `"${hash}-br"` } };
};

/** The best encoding the client accepts (q > 0): br, then gzip, else the identity. */
export const chooseEncoding = (acceptEncoding: string | null): Encoding => {
  const accepted = new Map<string, number>();
  for (const part of (acceptEncoding ?? "").split(",")) {
    const [name = "", ...params] = part.trim().toLowerCase().split(";");
    if (!name) continue;
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    accepted.set(name, q === undefined ? 1 : Number(q));
  }
  const quality = (name: string) => accepted.get(name) ?? (accepted.has("*") ? accepted.get("*")! : 0);
  if (quality("br") > 0) return "br";
  if (quality("gzip") > 0) return "gzip";
  return "identity";
};

/** Whether an If-None-Match list names this tag (weak comparison, as RFC 9110 asks for If-None-Match). */
const matches = (ifNoneMatch: string, etag: string): boolean =>
  ifNoneMatch.trim() === "*" || ifNoneMatch.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);

/** 200 with the chosen encoding, or 304 when the client's copy is current. `extra`: headers such as a CSP. */
export const respondWithAsset = (
  asset: CompressedAsset,
  request: Request,
  extra: Record<string, string> = {},
): Answer => {
  const encoding = chooseEncoding(request.headers.get("accept-encoding"));
  const etag = asset.etags[encoding];
  const headers: Record<string, string> = {
    ...extra,
    "content-type": asset.type,
    "cache-control": asset.cacheControl,
    etag,
    vary: "Accept-Encoding",
  };
  const ifNoneMatch = request.headers.get("if-none-match");
  if (ifNoneMatch !== null && matches(ifNoneMatch, etag)) return emptyResponse(304, headers);
  const body = asset.bodies[encoding];
  if (encoding !== "identity") headers["content-encoding"] = encoding;
  return bytesResponse(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), headers);
};
