import css from './room.css?inline';

/**
 * Adds the room's styles to a document or a shadow root as a constructed stylesheet (not a <style> element,
 * so a host page's CSP on inline styles does not block it), falling back to <style> where unsupported.
 */
export function adoptStyles(root: Document | ShadowRoot): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet !== 'undefined' && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    return;
  }
  const style = document.createElement('style');
  style.textContent = css;
  (root instanceof Document ? root.head : root).appendChild(style);
}
