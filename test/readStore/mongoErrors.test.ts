import { expect } from 'chai';
import { MongoServerError } from 'mongodb';
import { isNotSupported, translateMongoError } from '../../src/readStore/mongoErrors.js';
import { ReadStoreUnavailableError, UnsupportedQueryError } from '../../src/readStore/readStore.js';

/** A server reply as the driver receives it. */
const reply = (code: number, codeName: string, errmsg: string): MongoServerError =>
  new MongoServerError({ ok: 0, code, codeName, errmsg });

describe('MongoDB errors at the edge of the read store', () => {
  it('reads FerretDB cancelling a request as it stops as unavailable (a 503), not as a fault', () => {
    // FerretDB 1.24's reply to a find in flight when it received SIGTERM (seen in the fault drill).
    const cancelled = reply(
      1,
      'InternalError',
      '[msg_find.go:344 handler.handleMaxTimeMSError] [collection.go:94 sqlite.(*collection).Query] context canceled',
    );
    const translated = translateMongoError(cancelled, '127.0.0.1:27017');
    expect(translated).to.be.instanceOf(ReadStoreUnavailableError);
    expect((translated as Error).message).to.equal(
      `MongoDB at 127.0.0.1:27017 unreachable: ${cancelled.message}`,
    );
    expect(isNotSupported(cancelled)).to.equal(false);
  });

  it('keeps any other internal error as the server gave it', () => {
    const fault = reply(1, 'InternalError', '[msg_update.go:117 handler.(*Handler).updateDocument] panic');
    expect(translateMongoError(fault, 'here')).to.equal(fault);
  });

  it('reads MongoDB shutting down as unavailable and a bad value as an unsupported query', () => {
    expect(
      translateMongoError(reply(11600, 'InterruptedAtShutdown', 'interrupted'), 'here'),
    ).to.be.instanceOf(ReadStoreUnavailableError);
    expect(translateMongoError(reply(2, 'BadValue', 'bad value'), 'here')).to.be.instanceOf(
      UnsupportedQueryError,
    );
    const duplicate = reply(11000, 'DuplicateKey', 'E11000 duplicate key');
    expect(translateMongoError(duplicate, 'here')).to.equal(duplicate);
  });
});
