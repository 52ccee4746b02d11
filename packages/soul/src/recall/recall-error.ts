/** What a recall cannot bring back: an unknown pointer, a rotation that is gone, a file never viewed. */
import { SoulError } from "../errors.js";

/** A recall that found nothing; its message says why, for the model to read. */
export class RecallError extends SoulError {
  static override readonly brand: string = "@kosong/soul.error.RecallError";
}
