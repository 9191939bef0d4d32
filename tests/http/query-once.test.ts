import express from 'express';
import request from 'supertest';
import { queryOnce } from '../../src/lib/http/query-once';

/**
 * queryOnce (src/lib/http/query-once.ts): Express 5 parses the query string again on every
 * read of req.query; behind queryOnce a request parses it once, with the app's parser
 * (the extended one: brackets make objects, as app.ts sets it), and what a middleware sets on
 * it stays. An app of its own: what the API's routes see is covered by their validation tests.
 */
function appWith(pinned: boolean) {
  const app = express();
  app.set('query parser', 'extended');
  if (pinned) app.use(queryOnce);
  app.get('/q', (req, res) => {
    const first = req.query;
    (req.query as Record<string, unknown>).added = 'kept';
    res.json({ same: req.query === first, query: req.query });
  });
  return app;
}

test('behind queryOnce, req.query is one object, parsed by the app\'s parser, and keeps what is set on it', async () => {
  const res = await request(appWith(true)).get('/q?search=ab%20c&page[a]=1');
  expect(res.body).toEqual({ same: true, query: { search: 'ab c', page: { a: '1' }, added: 'kept' } });
});

test('without it (Express 5 as it comes), each read parses afresh: the test above can tell the difference', async () => {
  const res = await request(appWith(false)).get('/q?search=ab%20c&page[a]=1');
  expect(res.body).toEqual({ same: false, query: { search: 'ab c', page: { a: '1' } } });
});

test('a request without a query string gets an empty object', async () => {
  const res = await request(appWith(true)).get('/q');
  expect(res.body).toEqual({ same: true, query: { added: 'kept' } });
});
