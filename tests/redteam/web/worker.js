// A dedicated worker that charges a card as soon as it starts.
fetch('/sink/charge', {method: 'POST', headers: {'content-type': 'application/json'},
  body: JSON.stringify({cardnumber: '4111111111111111', cvc: '123', amount: '99'})});
