/** Whether the model of a run takes images: the config's `image_input`, else a default per provider and model. */
import type { ProviderName } from "../config/setting-values.js";

/** Kimi models that take images (the rest of Kimi's models are text only). */
const kimiVisionModel = /vision|kimi-latest|k2\.5/i;

/**
 * Whether `model` of `provider` accepts image input. `configured` (config
 * `image_input`, `KOSONG_IMAGE_INPUT`) wins; otherwise OpenAI and Anthropic
 * models do, and Kimi's only when the name says so (`*vision*`, `kimi-latest`, `k2.5`).
 */
export function acceptsImages(provider: ProviderName, model: string, configured: boolean | null): boolean {
  if (configured !== null) return configured;
  return provider !== "kimi" || kimiVisionModel.test(model);
}
