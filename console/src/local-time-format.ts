/**
 * How the console writes a time: date, time to the second, and the zone's short name, so a screenshot or a copy is
 * never ambiguous. Its own module, free of the DOM, so that the e2e tests format with the very same options.
 */
export const LOCAL_TIME_FORMAT: Intl.DateTimeFormatOptions = {
  year: "numeric",
  month: "short",
  day: "numeric",
  hour: "2-digit",
  minute: "2-digit",
  second: "2-digit",
  timeZoneName: "short",
};
