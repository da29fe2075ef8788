// The console's one script: the WebAuthn ceremonies (through the self-hosted SimpleWebAuthnBrowser),
// the confirmation step before sensitive actions, and small conveniences (select-all, dependencies,
// copy). Pages work without it wherever no passkey is involved.
(() => {
  const meta = (name) => document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? '';
  const base = meta('console-base');
  const csrf = meta('csrf-token');
  const statusEl = () => document.getElementById('status');

  function say(message, error) {
    const el = statusEl();
    if (!el) return;
    el.textContent = message;
    el.className = error ? 'status error' : 'status';
    el.setAttribute('role', error ? 'alert' : 'status');
  }

  async function post(path, body) {
    const response = await fetch(base + path, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify(body ?? {}),
    });
    let data = {};
    try {
      data = await response.json();
    } catch {
      data = {};
    }
    return { ok: response.ok, status: response.status, data };
  }

  class CeremonyError extends Error {}

  const fail = (result) => {
    throw new CeremonyError(result.data.detail ?? `The request failed (${result.status}).`);
  };

  /** A WebAuthn call that the person cancelled or that timed out reads as a plain sentence. */
  async function authenticator(call) {
    try {
      return await call();
    } catch (error) {
      if (error?.name === 'NotAllowedError') throw new CeremonyError('The passkey prompt was cancelled or timed out. Try again.');
      throw new CeremonyError(error?.message ?? 'The passkey could not be used.');
    }
  }

  async function confirmWithPasskey() {
    const options = await post('/confirm/options');
    if (!options.ok) fail(options);
    const response = await authenticator(() => SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options.data }));
    const confirmed = await post('/confirm', { response });
    if (!confirmed.ok) fail(confirmed);
  }

  /** A request behind the recent-confirmation gate: confirm once when asked, then ask again. */
  async function postConfirmed(path, body) {
    let result = await post(path, body);
    if (result.status === 403 && result.data.code === 'confirmation_required') {
      say('Confirm with your passkey to continue.');
      await confirmWithPasskey();
      result = await post(path, body);
    }
    if (!result.ok) fail(result);
    return result.data;
  }

  async function signIn() {
    const options = await post('/sign-in/options');
    if (!options.ok) fail(options);
    const response = await authenticator(() => SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: options.data }));
    const result = await post('/sign-in', { response });
    if (!result.ok) fail(result);
    window.location.assign(result.data.redirect);
  }

  // The enrolment secret arrives in the fragment, which no server sees; it leaves the address bar at once.
  const enrolmentLink = window.location.hash.slice(1);
  if (enrolmentLink && document.getElementById('enrol-form')) history.replaceState(null, '', window.location.pathname);

  async function enrol(form) {
    if (!enrolmentLink) throw new CeremonyError('This page needs the whole enrolment link, including the part after #. Open the link you were given again.');
    const options = await post('/enrol/options', { link: enrolmentLink });
    if (!options.ok) fail(options);
    const response = await authenticator(() => SimpleWebAuthnBrowser.startRegistration({ optionsJSON: options.data.options }));
    const result = await post('/enrol', { link: enrolmentLink, name: form.elements.name.value, response });
    if (!result.ok) fail(result);
    window.location.assign(result.data.redirect);
  }

  async function register(form) {
    const options = await postConfirmed('/passkeys/options');
    const response = await authenticator(() => SimpleWebAuthnBrowser.startRegistration({ optionsJSON: options }));
    const result = await postConfirmed('/passkeys', { name: form.elements.name.value, response });
    window.location.assign(result.redirect);
  }

  async function confirmAndSubmit(form) {
    await confirmWithPasskey();
    say('Confirmed.');
    HTMLFormElement.prototype.submit.call(form);
  }

  const CEREMONIES = { 'sign-in': signIn, enrol, register, confirm: confirmAndSubmit };

  function run(name, form) {
    say('Waiting for your passkey…');
    CEREMONIES[name](form).catch((error) => say(error instanceof CeremonyError ? error.message : 'Something went wrong. Reload the page and try again.', true));
  }

  for (const el of document.querySelectorAll('[data-ceremony]')) {
    const name = el.getAttribute('data-ceremony');
    if (el instanceof HTMLFormElement) {
      el.addEventListener('submit', (event) => {
        event.preventDefault();
        run(name, el);
      });
    } else {
      el.addEventListener('click', () => run(name));
    }
  }

  // Approval and publication permissions (data-explicit) are never part of select-all.
  for (const button of document.querySelectorAll('[data-select-all]')) {
    button.addEventListener('click', () => {
      for (const box of document.querySelectorAll(`input[name="${button.getAttribute('data-select-all')}"]`)) {
        if (!box.hasAttribute('data-explicit')) box.checked = true;
      }
    });
  }

  // Ticking a permission ticks what it needs; the server checks the dependencies again.
  for (const box of document.querySelectorAll('input[data-needs]')) {
    box.addEventListener('change', () => {
      if (!box.checked) return;
      for (const need of box.getAttribute('data-needs').split(' ').filter(Boolean)) {
        const other = document.getElementById(`ability-${need}`);
        if (other) other.checked = true;
      }
    });
  }

  for (const button of document.querySelectorAll('[data-copy]')) {
    button.addEventListener('click', async () => {
      const field = document.getElementById(button.getAttribute('data-copy'));
      const out = document.getElementById('copy-status');
      try {
        await navigator.clipboard.writeText(field.value);
        if (out) out.textContent = 'Copied.';
      } catch {
        field.select();
        if (out) out.textContent = 'Select the text and copy it.';
      }
    });
  }
})();
