/** The results webview's page: bundled script and styles only, under a nonce-based Content-Security-Policy. */
import { randomBytes } from 'node:crypto';

export interface WebviewAssets {
    script: string;
    style: string;
    /** `webview.cspSource`. */
    cspSource: string;
}

export function webviewHtml(assets: WebviewAssets, nonce: string = randomBytes(16).toString('base64')): string {
    const csp = [
        "default-src 'none'",
        `img-src ${assets.cspSource} data:`,
        `font-src ${assets.cspSource}`,
        // AG Grid and uPlot add <style> elements: they carry the nonce (AG Grid's styleNonce).
        `style-src ${assets.cspSource} 'nonce-${nonce}'`,
        `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" nonce="${nonce}" href="${assets.style}">
<title>APL Results</title>
</head>
<body data-nonce="${nonce}">
<div id="app"></div>
<script nonce="${nonce}" src="${assets.script}"></script>
</body>
</html>`;
}
