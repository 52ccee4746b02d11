/** A fetch that could not be done (a refused address, too many redirects, a bad URL, a timeout); its message is for the model. */
export class FetchError extends Error {
  override name = "FetchError";
}
