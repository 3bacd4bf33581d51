// Pages for people who are not signed in: sign in, create an account or
// accept an invitation, forgot and reset password, confirm an address.
// The mails' links land here.

import { post, ApiError } from '../api.js';
import { h, form, notice, errorBox, loading } from '../dom.js';
import { navigate, refreshMe, safeNext } from '../app.js';

export async function render(ctx) {
  switch (ctx.view) {
    case 'login': return login(ctx);
    case 'register': return register(ctx);
    case 'forgot': return forgot();
    case 'reset': return reset(ctx);
    case 'verify': return verify(ctx);
  }
  throw new Error('Unknown page');
}

function card(title, ...body) {
  return h('div', { class: 'auth-card' },
    h('div', { class: 'auth-brand' }, h('img', { src: document.querySelector('link[rel=icon]').getAttribute('href'), alt: '', width: 32, height: 32 }), h('span', {}, 'Garrison')),
    h('h1', {}, title), ...body);
}

// takeToken reads a mail link's token and takes it out of the address bar
// and history, so it is not left behind in the browser.
function takeToken(ctx) {
  const token = ctx.query.get('token') || '';
  if (token) {
    const q = new URLSearchParams(location.search);
    q.delete('token');
    const rest = q.toString();
    history.replaceState(null, '', location.pathname + (rest ? '?' + rest : ''));
  }
  return token;
}

function login(ctx) {
  // Why the session ended, as the app said it: a ?reason= in a link is
  // not shown, or anyone could write on the sign-in page.
  const reason = typeof history.state?.reason === 'string' ? history.state.reason : '';
  const next = safeNext(ctx.query.get('next'));
  const registration = ctx.health() ? ctx.health().registration : 'open';
  return card('Sign in',
    reason ? notice(reason) : null,
    form({
      submit: 'Sign in',
      fields: [
        { name: 'email', label: 'E-mail address', type: 'email', required: true, autocomplete: 'username' },
        { name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'current-password' },
      ],
      onSubmit: async (v) => {
        await post('/auth/login', { email: v.email, password: v.password }, { public: true });
        await refreshMe(true);
        navigate(next, true);
      },
    }),
    h('p', { class: 'auth-links' },
      h('a', { href: '/forgot-password' }, 'Forgot your password?'),
      registration === 'open' ? [' · ', h('a', { href: '/register' }, 'Create an account')] : null));
}

function register(ctx) {
  const token = takeToken(ctx) || ctx.query.get('invite') || '';
  const registration = ctx.health() ? ctx.health().registration : 'open';
  if (!token && registration !== 'open') {
    return card('Create an account',
      notice(registration === 'invite'
        ? 'This Garrison takes new accounts by invitation only. Open the link in your invitation mail.'
        : 'This Garrison does not take new accounts. Ask its operator for one.'),
      h('p', { class: 'auth-links' }, h('a', { href: '/login' }, 'Sign in')));
  }
  const fields = [
    { name: 'email', label: 'E-mail address', type: 'email', required: true, autocomplete: 'email',
      hint: token ? 'The address the invitation was sent to.' : null },
    { name: 'name', label: 'Your name', required: true, autocomplete: 'name', maxlength: 100 },
    { name: 'password', label: 'Password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 12 characters.' },
  ];
  if (!token) fields.push({ name: 'org', label: 'Organization', autocomplete: 'organization', maxlength: 100, hint: 'Leave empty to name it after your e-mail domain.' });
  const f = form({
    submit: token ? 'Join' : 'Create account',
    fields,
    onSubmit: async (v) => {
      const body = { email: v.email, name: v.name, password: v.password };
      if (token) body.invite_token = token;
      else if (v.org) body.org = v.org;
      const answer = await post('/auth/register', body, { public: true });
      if (answer.data && answer.data.status === 'confirmation_pending') {
        // An unconfirmed account another organization invited holds the
        // address: the account is made when the mailbox confirms.
        f.replaceWith(notice(`Check the mailbox of ${answer.data.email}. An account that nobody has confirmed from it holds the address; ` +
          'open the link we just sent within an hour to make your account. The other account is then removed.'));
        return;
      }
      await refreshMe(true);
      navigate('/?welcome=1', true);
    },
  });
  return card(token ? 'Accept your invitation' : 'Create an account', f,
    h('p', { class: 'auth-links' }, 'Have an account? ', h('a', { href: '/login' }, 'Sign in')));
}

function forgot() {
  const f = form({
    submit: 'Send the link',
    fields: [{ name: 'email', label: 'E-mail address', type: 'email', required: true, autocomplete: 'email' }],
    onSubmit: async (v) => {
      await post('/auth/reset-request', { email: v.email }, { public: true });
      f.replaceWith(notice('If an account uses that address, a link to choose a new password is on its way. It works for one hour.'));
    },
  });
  return card('Forgot your password?', h('p', {}, 'We will mail you a link to choose a new one.'), f,
    h('p', { class: 'auth-links' }, h('a', { href: '/login' }, 'Back to sign in')));
}

function reset(ctx) {
  const token = takeToken(ctx);
  if (!token) {
    return card('Choose a new password', errorBox(new Error('This link has no token. Open the link from the mail again, or ask for a new one.')),
      h('p', { class: 'auth-links' }, h('a', { href: '/forgot-password' }, 'Ask for a new link'), ' · ', h('a', { href: '/login' }, 'Sign in')));
  }
  const f = form({
    submit: 'Set password',
    fields: [
      { name: 'new_password', label: 'New password', type: 'password', required: true, autocomplete: 'new-password', hint: 'At least 12 characters.' },
      { name: 'confirm', label: 'New password again', type: 'password', required: true, autocomplete: 'new-password' },
    ],
    onSubmit: async (v) => {
      if (v.new_password !== v.confirm) {
        throw new ApiError(400, 'validation_error', 'Invalid request: confirm does not match the new password', ['confirm']);
      }
      await post('/auth/reset-confirm', { token, new_password: v.new_password }, { public: true });
      f.replaceWith(notice('Your password is changed, and every session signed in with the old one has ended.'),
        h('p', {}, h('a', { href: '/login', class: 'button' }, 'Sign in')));
    },
  });
  return card('Choose a new password', f, h('p', { class: 'auth-links' }, h('a', { href: '/login' }, 'Back to sign in')));
}

function verify(ctx) {
  const token = takeToken(ctx);
  const box = h('div', {}, loading('Confirming your address'));
  if (!token) {
    box.replaceChildren(errorBox(new Error('This link has no token. Open the link from the mail again.')),
      h('p', { class: 'auth-links' }, h('a', { href: '/login' }, 'Sign in')));
  } else {
    post('/auth/verify-email', { token }, { public: true }).then(async () => {
      const me = await refreshMe();
      box.replaceChildren(notice('Your e-mail address is confirmed.'),
        h('p', {}, h('a', { href: me ? '/' : '/login', class: 'button' }, me ? 'Go to the dashboard' : 'Sign in')));
    }, (err) => box.replaceChildren(errorBox(err), h('p', {}, 'A confirmation link works once, for one hour.'),
      h('p', { class: 'auth-links' }, h('a', { href: '/login' }, 'Sign in'))));
  }
  return card('Confirm your address', box);
}
