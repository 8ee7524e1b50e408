// Opens pages in headless Chromium (the system browser, driven by playwright-core) and
// prints what the browser tests check, as one JSON line on stdout.
//
//   node browser.mjs '<job JSON>'
//
// The job: { "visits": [ { "url", "screenshot", "login"?: "<API key>",
//                          "html"?: "<page>" } ... ],
//            "offline"?: true, "capture"?: "<URL glob>" }
// Visits share one browser context (so a login cookie carries over). `login` fills the login
// form of the page the URL lands on and submits it. With `html`, the visit's URL answers that
// page (another site, say), and the visit waits for what the page does by itself (a form it
// submits, a frame it opens). With `offline`, every request that is not a file:// URL is
// aborted and reported; with `capture`, every request to a URL matching it is answered 204
// and reported. For each visit the answer holds the final URL, the HTTP status, the score
// cells, the sections, how many chart canvases there are and how many have drawn pixels, the
// console errors, each child frame (its URL and whether it shows a login form), the file
// name of a download it started, and the requests that left the machine.
import { chromium } from 'playwright-core';

const job = JSON.parse(process.argv[2]);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
const network = [];
if (job.offline) {
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:')) return route.continue();
    network.push(url);
    return route.abort();
  });
}
const captured = [];
if (job.capture) {
  await context.route(job.capture, (route) => {
    const request = route.request();
    captured.push({ url: request.url(), body: request.postData() });
    return route.fulfill({ status: 204 });
  });
}
const answers = [];
try {
  for (const visit of job.visits) {
    const page = await context.newPage();
    const errors = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    if (visit.html !== undefined) {
      await page.route(visit.url, (route) =>
        route.fulfill({ status: 200, contentType: 'text/html', body: visit.html }));
    }
    const download = page.waitForEvent('download', { timeout: 3000 }).catch(() => null);
    let response = null;
    let gotoError = null;
    try {
      response = await page.goto(visit.url, { waitUntil: 'load' });
    } catch (error) {
      gotoError = String(error);
    }
    if (visit.html !== undefined) {
      await page.waitForLoadState('load');
      await page.waitForTimeout(1000);
    }
    if (visit.login !== undefined) {
      await page.fill('input[name=key]', visit.login);
      [response] = await Promise.all([
        page.waitForNavigation({ waitUntil: 'load' }),
        page.click('button[type=submit]'),
      ]);
    }
    const downloaded = gotoError === null ? null : await download;
    if (visit.html === undefined && gotoError === null) {
      await page.waitForSelector('body[data-drawn]', { timeout: 10000 }).catch(() => {});
      await page.waitForTimeout(200);
    }
    const frames = [];
    for (const frame of page.mainFrame().childFrames()) {
      const loginForm = await frame
        .evaluate(() => document.querySelector('form.login') !== null)
        .catch(() => false);
      frames.push({ url: frame.url(), loginForm });
    }
    const seen = await page.evaluate(() => {
      const canvases = [...document.querySelectorAll('[data-chart] canvas')];
      const drawn = canvases.filter((canvas) => {
        const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) return true;
        return false;
      });
      const rows = [...document.querySelectorAll('tr[data-provider]')].map((row) => ({
        provider: row.getAttribute('data-provider'),
        overall: row.getAttribute('data-overall'),
        score: row.querySelector('.score') ? row.querySelector('.score').textContent : null,
      }));
      return {
        title: document.title,
        heading: document.querySelector('h1') ? document.querySelector('h1').textContent : null,
        rows,
        sections: [...document.querySelectorAll('section[id]')].map((section) => section.id),
        verdicts: [...document.querySelectorAll('tr[data-verdict]')].map((row) => row.getAttribute('data-verdict')),
        charts: document.querySelectorAll('[data-chart]').length,
        canvases: canvases.length,
        drawnCanvases: drawn.length,
        loginForm: document.querySelector('form.login') !== null,
        text: document.body ? document.body.innerText.slice(0, 2000) : '',
        links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
      };
    });
    if (visit.screenshot) await page.screenshot({ path: visit.screenshot, fullPage: true });
    answers.push({
      url: page.url(),
      status: response ? response.status() : null,
      errors,
      frames,
      download: downloaded ? downloaded.suggestedFilename() : null,
      ...seen,
    });
    await page.close();
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify({ visits: answers, network, captured }));
