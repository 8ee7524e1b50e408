// node:querystring: `querystring-es3` (Node's querystring as a package), with escape and
// unescape.

'use strict';

const vendored = require('../vendor/querystring.cjs');

function unescape(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return unescapeBytes(text);
  }
}

/** Decodes the %XX escapes that form valid UTF-8 and leaves the others as they are. */
function unescapeBytes(text) {
  return text.replace(/(%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

module.exports = {
  ...vendored,
  escape: (text) => encodeURIComponent(text),
  unescape,
  unescapeBuffer: (text) => require('./buffer.cjs').Buffer.from(unescape(String(text))),
};
