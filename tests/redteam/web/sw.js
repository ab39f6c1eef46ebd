// A service worker that charges a card when the page asks it to.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', e => e.waitUntil(self.clients.claim()));
self.addEventListener('message', () => {
  fetch('/sink/charge', {method: 'POST', headers: {'content-type': 'application/json'},
    body: JSON.stringify({cardnumber: '4111111111111111', cvc: '123', amount: '99'})});
});
