/**
 * The benchmark's log shipper: reads a server's log lines from the pipe that is its stdin, as a shipper such as
 * Vector or Fluent Bit reads a container's output, and counts them; `lines` over IPC answers how many so far. It runs
 * beside the load generator, so its CPU is not counted as the server's. It ends when the server closes the pipe.
 */
let lines = 0;
let bytes = 0;
process.stdin.on("data", (chunk: Buffer) => {
  bytes += chunk.length;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
});
process.stdin.on("end", () => process.disconnect?.());
process.on("message", (message: { id: number }) => process.send?.({ id: message.id, lines, bytes }));
