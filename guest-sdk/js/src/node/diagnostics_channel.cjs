// node:diagnostics_channel: named channels that publish messages to their subscribers, in
// the task's own sandbox (what HTTP clients use to report their requests).

'use strict';

class Channel {
  constructor(name) {
    this.name = name;
    this._subscribers = [];
  }

  get hasSubscribers() {
    return this._subscribers.length > 0;
  }

  subscribe(subscriber) {
    this._subscribers.push(subscriber);
  }

  unsubscribe(subscriber) {
    const index = this._subscribers.indexOf(subscriber);
    if (index === -1) return false;
    this._subscribers.splice(index, 1);
    return true;
  }

  publish(message) {
    for (const subscriber of this._subscribers.slice()) {
      try {
        subscriber(message, this.name);
      } catch (error) {
        queueMicrotask(() => {
          throw error;
        });
      }
    }
  }

  bindStore() {}

  unbindStore() {}

  runStores(data, fn, thisArg, ...args) {
    this.publish(data);
    return fn.apply(thisArg, args);
  }
}

const channels = new Map();

function channel(name) {
  let found = channels.get(name);
  if (!found) {
    found = new Channel(name);
    channels.set(name, found);
  }
  return found;
}

/** start/end/asyncStart/asyncEnd/error channels of one traced operation. */
function tracingChannel(name) {
  const kinds = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'];
  const tracing = Object.fromEntries(kinds.map((kind) => [kind, channel(`tracing:${name}:${kind}`)]));
  return {
    ...tracing,
    get hasSubscribers() {
      return kinds.some((kind) => tracing[kind].hasSubscribers);
    },
    subscribe(handlers) {
      for (const kind of kinds) if (handlers[kind]) tracing[kind].subscribe(handlers[kind]);
    },
    unsubscribe(handlers) {
      for (const kind of kinds) if (handlers[kind]) tracing[kind].unsubscribe(handlers[kind]);
    },
    traceSync(fn, context = {}, thisArg, ...args) {
      tracing.start.publish(context);
      try {
        context.result = fn.apply(thisArg, args);
        return context.result;
      } catch (error) {
        context.error = error;
        tracing.error.publish(context);
        throw error;
      } finally {
        tracing.end.publish(context);
      }
    },
    tracePromise(fn, context = {}, thisArg, ...args) {
      tracing.start.publish(context);
      try {
        return Promise.resolve(fn.apply(thisArg, args)).then(
          (result) => {
            context.result = result;
            tracing.asyncEnd.publish(context);
            return result;
          },
          (error) => {
            context.error = error;
            tracing.error.publish(context);
            tracing.asyncEnd.publish(context);
            throw error;
          },
        );
      } finally {
        tracing.end.publish(context);
      }
    },
  };
}

module.exports = {
  channel,
  tracingChannel,
  hasSubscribers: (name) => channels.get(name)?.hasSubscribers ?? false,
  subscribe: (name, subscriber) => channel(name).subscribe(subscriber),
  unsubscribe: (name, subscriber) => channel(name).unsubscribe(subscriber),
  Channel,
};
