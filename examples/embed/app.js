// Ask our own server for a session token (it holds the secret key), then mount the room with it.
const target = document.getElementById('assessment');
const activity = document.getElementById('activity');

for (const name of ['prep:ready', 'prep:started', 'prep:submission', 'prep:progress', 'prep:token-refreshed', 'prep:completed', 'prep:error']) {
  target.addEventListener(name, (event) => {
    const item = document.createElement('li');
    item.textContent = `${name} ${JSON.stringify(event.detail)}`;
    item.dataset.event = name;
    activity.appendChild(item);
  });
}

const response = await fetch('/session', { method: 'POST' });
const session = await response.json();
if (!response.ok) {
  target.textContent = `Could not start the assessment: ${session.error?.message ?? response.status}`;
} else {
  window.PrepEmbed.mount(target, { publishableKey: target.dataset.publishableKey, session });
}
