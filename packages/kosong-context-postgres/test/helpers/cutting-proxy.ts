/**
 * A TCP proxy in front of the test server that can cut a connection at a
 * chosen moment: after the server answered a statement (so the statement
 * committed) but before the client reads the answer. The lost
 * acknowledgement a network failure causes, made deterministic.
 */
import { createServer, Socket, type AddressInfo } from "node:net";

export interface CuttingProxy {
  readonly port: number;
  /** Connections cut so far. */
  readonly cuts: number;
  /**
   * Arms a one-shot cut: on the next connection whose client sends a
   * message containing `statement`, the server's answer that contains
   * `answer` is dropped and both sides are closed.
   */
  cutAfter(statement: string, answer: string): void;
  close(): Promise<void>;
}

export async function startCuttingProxy(targetPort: number): Promise<CuttingProxy> {
  let armed: { statement: Buffer; answer: Buffer } | null = null;
  let cuts = 0;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = new Socket();
    upstream.connect(targetPort, "127.0.0.1");
    sockets.add(client).add(upstream);
    let marked: { answer: Buffer } | null = null;
    const cut = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("data", (chunk: Buffer) => {
      if (armed !== null && chunk.includes(armed.statement)) {
        marked = { answer: armed.answer };
        armed = null;
      }
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (marked !== null && chunk.includes(marked.answer)) {
        cuts += 1;
        return cut();
      }
      client.write(chunk);
    });
    for (const socket of [client, upstream]) {
      socket.on("error", cut);
      socket.on("close", () => {
        sockets.delete(socket);
        cut();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get cuts() {
      return cuts;
    },
    cutAfter(statement, answer) {
      armed = { statement: Buffer.from(statement), answer: Buffer.from(answer) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
