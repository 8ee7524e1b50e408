// The `DOMParser`, `XMLSerializer` and `Node` globals of browsers, from `@xmldom/xmldom`,
// for packages that parse or write XML the browser way.

import xmldom from '../../../vendor/xmldom.cjs';

export const DOMParser = xmldom.DOMParser;
export const XMLSerializer = xmldom.XMLSerializer;
export const Node = xmldom.Node;
