// What the protocol's Node tests share.

import { RemoteProtocolError } from "../js/protocol.js";

/**
 * The code `run` is refused with (a RemoteProtocolError's), or null when it succeeds; anything else is a bug.
 * @param {() => unknown} run
 * @returns {Promise<string | null>}
 */
export async function refusal(run) {
  try {
    await run();
    return null;
  } catch (error) {
    if (!(error instanceof RemoteProtocolError)) throw error;
    return error.code;
  }
}
