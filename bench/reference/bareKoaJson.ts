/**
 * The reference for the conversations benchmark: a bare Koa app answering any GET with a small fixed
 * JSON body (no router, no authentication, no read model). Started by bench/conversations.bench.ts
 * on the port given as the first argument; it waits for its first request before the timing starts.
 */
import Koa from 'koa';

const body = {
  message: { success: true, data: { results: [] }, tokens_used: { input: 0, output: 0, total: 0 } },
};
const app = new Koa();
app.use((ctx) => {
  ctx.body = body;
});
app.listen(Number(process.argv[2]), '127.0.0.1');
