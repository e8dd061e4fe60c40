// Compiled under `tsc --strict` in CI: the client types generated from openapi.yaml must be usable
// as a front end uses them, not merely parse. Each line names a response a screen reads.
import type { components, paths } from "../api";

type Json<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends {
  responses: { 200: { content: { "application/json": infer T } } };
}
  ? T
  : never;

export type Wallet = Json<"/v1/me/wallet", "get">;
export type KenoMath = Json<"/v1/keno/math", "get">;
export type InstantGames = Json<"/v1/instant/games", "get">;
export type Receipt = components["schemas"]["ReceiptView"];
export type Problem = components["schemas"]["Problem"];

export function receiptLines(receipt: Receipt): string {
  return receipt.lines.join("\n");
}

export function problemCode(problem: Problem): string {
  return problem.code;
}
