// The `Buffer` global (node:buffer's Buffer).

import buffer from '../../buffer.cjs';

export const Buffer = buffer.Buffer;
