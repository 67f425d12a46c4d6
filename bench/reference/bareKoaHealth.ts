/**
 * The reference for the health benchmark: a bare Koa app answering `GET /api/v1/health` with the
 * same JSON as Archivist, and nothing else (no router, no logging, no correlation id). Started by
 * bench/health.bench.ts on the port given as the first argument.
 */
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/api/v1/health') {
    ctx.body = { status: 'healthy', version: '0.1.0', timestamp: new Date().toISOString() };
  } else {
    ctx.status = 404;
  }
});
app.listen(Number(process.argv[2]), '127.0.0.1');
