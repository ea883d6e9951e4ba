/**
 * The bytes of a chart image the webview sends to be saved: SVG text, or a PNG as base64. Checked
 * before anything is written (the webview is a page; what it sends is input), so a file named
 * `.png` holds a PNG and one named `.svg` an SVG document.
 */
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
/** A chart image larger than this is not a chart. */
export const MAX_CHART_IMAGE_BYTES = 50 * 1024 * 1024;

export function chartImageBytes(format: 'svg' | 'png', data: string): Uint8Array {
    if (typeof data !== 'string') throw new TypeError('the chart image is missing');
    if (format === 'svg') {
        const text = data.replace(/^\uFEFF/, '').trimStart();
        if (!/^(<\?xml[^>]*>\s*)?<svg[\s>]/.test(text)) throw new Error('the chart image is not an SVG document (it must start with <svg)');
        const bytes = new TextEncoder().encode(data);
        if (bytes.length > MAX_CHART_IMAGE_BYTES) throw new Error(`the chart image is larger than ${MAX_CHART_IMAGE_BYTES} bytes`);
        return bytes;
    }
    if (format !== 'png') throw new Error(`format must be svg or png, got ${JSON.stringify(format)}`);
    const base64 = data.replace(/^data:image\/png;base64,/, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(base64)) throw new Error('the chart image is not base64');
    const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
    if (bytes.length > MAX_CHART_IMAGE_BYTES) throw new Error(`the chart image is larger than ${MAX_CHART_IMAGE_BYTES} bytes`);
    if (!PNG_SIGNATURE.every((b, i) => bytes[i] === b)) throw new Error('the chart image is not a PNG (no PNG signature)');
    return bytes;
}
