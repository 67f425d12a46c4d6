// Control for the offline test: a raw tesseract.js worker given a URL as langPath tries to fetch its
// traineddata. Under the network guard that attempt must be reported (otherwise the guard proves nothing).
import Tesseract from 'tesseract.js';

const timer = setTimeout(() => process.exit(0), 10_000);
void Tesseract.createWorker('eng', Tesseract.OEM.LSTM_ONLY, {
  langPath: 'https://cdn.example.invalid/tessdata',
  cacheMethod: 'none',
  errorHandler: () => {
    clearTimeout(timer);
    process.exit(0);
  },
});
