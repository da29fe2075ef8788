// Renders the served OpenAPI document with the self-hosted Redoc bundle (no inline script, no CDN).
(() => {
  const el = document.getElementById('reference');
  Redoc.init(el.getAttribute('data-spec-url'), { hideHostname: false, expandResponses: '200,201' }, el);
})();
