// The widget's module (/room/embed-room.js), imported by the /embed.js loader on a customer's page.
export { mount } from './embed.js';
