// The `process` global (node:process).

import process from '../../process.cjs';

export { process };
