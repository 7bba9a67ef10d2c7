/**
 * The process's memory, sampled every `sampleMs` from now until `stop()`: its
 * baseline and the peaks of RSS and heap between (the bench's scale child and
 * the fleet's probes read the same figures).
 */
export function sampleMemoryPeaks(sampleMs: number) {
  const baseline = process.memoryUsage();
  let rssPeak = baseline.rss;
  let heapPeak = baseline.heapUsed;
  const sample = () => {
    const usage = process.memoryUsage();
    rssPeak = Math.max(rssPeak, usage.rss);
    heapPeak = Math.max(heapPeak, usage.heapUsed);
  };
  const timer = setInterval(sample, sampleMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { baseline, rssPeak, heapPeak };
    },
  };
}
