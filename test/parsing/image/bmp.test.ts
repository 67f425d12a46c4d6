import { expect } from 'chai';
import sharp from 'sharp';
import { decodeBmp, looksLikeBmp, readBmpSize, type RawImage } from '../../../src/parsing/image/bmp.js';
import { MAX_IMAGE_PIXELS } from '../../../src/parsing/image/imageInput.js';
import { expectParseError } from '../expectParseError.js';
import { imageFixture } from '../ocr/imageFixtures.js';

/** ImageMagick's decoding of text-24bit.bmp, as RGB. */
async function reference(): Promise<RawImage> {
  const { data, info } = await sharp(imageFixture('bmp-reference.png'))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: 3, data };
}

function rgbDifference(a: RawImage, b: RawImage): { max: number; mean: number } {
  let max = 0;
  let sum = 0;
  const pixels = a.width * a.height;
  for (let pixel = 0; pixel < pixels; pixel += 1) {
    for (let channel = 0; channel < 3; channel += 1) {
      const diff = Math.abs(
        (a.data[pixel * a.channels + channel] ?? 0) - (b.data[pixel * b.channels + channel] ?? 0),
      );
      max = Math.max(max, diff);
      sum += diff;
    }
  }
  return { max, mean: sum / (pixels * 3) };
}

/** A copy of a fixture with some header bytes changed (little-endian). */
function patched(name: string, edits: Array<{ at: number; bytes: 2 | 4; value: number }>): Uint8Array {
  const copy = Buffer.from(imageFixture(name));
  for (const edit of edits) {
    if (edit.bytes === 2) copy.writeUInt16LE(edit.value, edit.at);
    else copy.writeInt32LE(edit.value, edit.at);
  }
  return new Uint8Array(copy);
}

describe('BMP decoder', () => {
  it('decodes a 24-bit BMP pixel for pixel as ImageMagick does (bottom-up rows, BGR order)', async () => {
    const decoded = decodeBmp(imageFixture('text-24bit.bmp'), MAX_IMAGE_PIXELS);
    const expected = await reference();
    expect([decoded.width, decoded.height, decoded.channels]).to.deep.equal([380, 135, 3]);
    expect(rgbDifference(decoded, expected).max).to.equal(0);
  });

  it('decodes an 8-bit paletted BMP to the same picture, within palette rounding', async () => {
    const decoded = decodeBmp(imageFixture('text-8bit.bmp'), MAX_IMAGE_PIXELS);
    const difference = rgbDifference(decoded, await reference());
    expect(decoded.channels).to.equal(3);
    expect(difference.mean).to.be.below(1);
    expect(difference.max).to.be.below(8);
  });

  it('decodes a 32-bit BMP with a V5 header and alpha mask to RGBA', async () => {
    const decoded = decodeBmp(imageFixture('text-32bit.bmp'), MAX_IMAGE_PIXELS);
    expect(decoded.channels).to.equal(4);
    expect(rgbDifference(decoded, await reference()).max).to.equal(0);
    const alphas = new Set<number>();
    for (let index = 3; index < decoded.data.length; index += 4) alphas.add(decoded.data[index] ?? -1);
    expect([...alphas]).to.deep.equal([255]);
  });

  it('reads the size from the header alone and recognises the signature', () => {
    expect(readBmpSize(imageFixture('text-8bit.bmp'))).to.deep.equal({ width: 380, height: 135 });
    expect(looksLikeBmp(imageFixture('text-24bit.bmp'))).to.equal(true);
    expect(looksLikeBmp(imageFixture('english.png'))).to.equal(false);
  });

  it('decodes a top-down BMP (negative height) the right way up', async () => {
    // Flip the rows of the 24-bit file and mark it top-down: the picture must not change.
    const source = Buffer.from(imageFixture('text-24bit.bmp'));
    const offset = source.readUInt32LE(10);
    const stride = Math.floor((24 * 380 + 31) / 32) * 4;
    const flipped = Buffer.from(source);
    for (let row = 0; row < 135; row += 1) {
      source.copy(
        flipped,
        offset + row * stride,
        offset + (134 - row) * stride,
        offset + (135 - row) * stride,
      );
    }
    flipped.writeInt32LE(-135, 22);
    const decoded = decodeBmp(new Uint8Array(flipped), MAX_IMAGE_PIXELS);
    expect(rgbDifference(decoded, await reference()).max).to.equal(0);
  });

  it('refuses RLE-compressed and 16-bit files as corrupt_document, naming what is unsupported', async () => {
    const rle = patched('text-8bit.bmp', [{ at: 30, bytes: 4, value: 1 }]);
    expect(
      (
        await expectParseError(
          Promise.resolve().then(() => decodeBmp(rle, MAX_IMAGE_PIXELS)),
          'corrupt_document',
        )
      ).message,
    ).to.match(/RLE8/);
    const sixteen = patched('text-24bit.bmp', [{ at: 28, bytes: 2, value: 16 }]);
    const error = await expectParseError(
      Promise.resolve().then(() => decodeBmp(sixteen, MAX_IMAGE_PIXELS)),
      'corrupt_document',
    );
    expect(error.message).to.match(/16-bit/);
  });

  it('refuses truncated pixel data and a header claiming 50,000×50,000 px before allocating', async () => {
    const whole = imageFixture('text-24bit.bmp');
    await expectParseError(
      Promise.resolve().then(() => decodeBmp(whole.subarray(0, whole.length - 500), MAX_IMAGE_PIXELS)),
      'corrupt_document',
    );
    const bomb = patched('text-24bit.bmp', [
      { at: 18, bytes: 4, value: 50_000 },
      { at: 22, bytes: 4, value: 50_000 },
    ]);
    await expectParseError(
      Promise.resolve().then(() => decodeBmp(bomb, MAX_IMAGE_PIXELS)),
      'too_large',
    );
  });
});
