import { bootLaunch } from './launch.js';

// The hosted launch page's module (/room/launch.js). Only the service's own page boots it.
const launch = document.getElementById('prep-launch');
if (launch && location.origin === new URL(import.meta.url).origin && location.pathname === '/launch') bootLaunch(launch);
