// node:string_decoder: the `string_decoder` package (Node's own StringDecoder).

'use strict';

module.exports = require('../vendor/string_decoder.cjs');
