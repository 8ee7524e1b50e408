// node:url: the WHATWG URL and URLSearchParams of the engine, the legacy API (parse, format,
// resolve, Url) from the `url` package (Node's own legacy parser), and the helpers between
// URLs and paths (fileURLToPath, pathToFileURL, urlToHttpOptions, domainToASCII…).

'use strict';

const legacy = require('../vendor/url.cjs');
const punycode = require('./punycode.cjs');

function invalidUrlScheme() {
  const error = new TypeError('The URL must be of scheme file');
  error.code = 'ERR_INVALID_URL_SCHEME';
  return error;
}

/** The path of a `file:` URL (a string or URL). */
function fileURLToPath(url) {
  const parsed = typeof url === 'string' ? new URL(url) : url;
  if (parsed.protocol !== 'file:') throw invalidUrlScheme();
  if (parsed.hostname !== '') {
    const error = new TypeError('File URL host must be "localhost" or empty on linux');
    error.code = 'ERR_INVALID_FILE_URL_HOST';
    throw error;
  }
  if (/%2f/i.test(parsed.pathname)) {
    const error = new TypeError('File URL path must not include encoded / characters');
    error.code = 'ERR_INVALID_FILE_URL_PATH';
    throw error;
  }
  return decodeURIComponent(parsed.pathname);
}

/** The `file:` URL of an absolute path (a relative one is taken from `/`). */
function pathToFileURL(path) {
  const absolute = String(path).startsWith('/') ? String(path) : `/${path}`;
  const url = new URL('file:///');
  url.pathname = absolute.replace(/%/g, '%25').replace(/\\/g, '%5C').replace(/\n/g, '%0A')
    .replace(/\r/g, '%0D').replace(/\t/g, '%09');
  return url;
}

/** The options of http.request for a URL. */
function urlToHttpOptions(url) {
  const options = {
    protocol: url.protocol,
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    hash: url.hash,
    search: url.search,
    pathname: url.pathname,
    path: `${url.pathname || ''}${url.search || ''}`,
    href: url.href,
  };
  if (url.port !== '') options.port = Number(url.port);
  if (url.username || url.password) {
    options.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  }
  return options;
}

/** url.format: a WHATWG URL gives its href (without the parts `options` turn off). */
function format(url, options) {
  if (typeof URL !== 'undefined' && url instanceof URL) {
    const copy = new URL(url.href);
    if (options?.auth === false) {
      copy.username = '';
      copy.password = '';
    }
    if (options?.search === false) copy.search = '';
    if (options?.fragment === false) copy.hash = '';
    return copy.href;
  }
  return legacy.format(url);
}

function domainToASCII(domain) {
  try {
    return new URL(`http://${domain}`).hostname;
  } catch {
    return '';
  }
}

function domainToUnicode(domain) {
  return String(domain)
    .split('.')
    .map((label) => (label.startsWith('xn--') ? punycode.decode(label.slice(4)) : label))
    .join('.');
}

module.exports = {
  ...legacy,
  format,
  URL: globalThis.URL,
  URLSearchParams: globalThis.URLSearchParams,
  fileURLToPath,
  pathToFileURL,
  urlToHttpOptions,
  domainToASCII,
  domainToUnicode,
};
