// Built-in modules as a CommonJS package gets them: `require('events')` is the class itself.
module.exports = { events: require('events'), stream: require('stream'), nodeEvents: require('node:events') };
