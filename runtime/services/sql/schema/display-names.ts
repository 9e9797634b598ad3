/** Display names derived from database identifiers, as the reference platform shows them. */

/** `contact_info` -> `Contact Info`, `firstName` -> `First Name`. */
export function humanize(identifier: string): string {
  return identifier
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .filter((word) => word !== '')
    .map((word) => word[0].toUpperCase() + word.slice(1))
    .join(' ');
}

/** English plural of a label's last word: `Contact Info` -> `Contact Infos`, `Category` -> `Categories`. */
export function pluralize(label: string): string {
  if (label === '') return label;
  if (/(ss|x|z|ch|sh)$/i.test(label)) return `${label}es`;
  if (/s$/i.test(label)) return label;
  if (/[^aeiou]y$/i.test(label)) return `${label.slice(0, -1)}ies`;
  return `${label}s`;
}

/** The API name of a database identifier: lower-cased unless the service keeps the database's case. */
export function apiName(sourceName: string, keepCase: boolean): string {
  return keepCase ? sourceName : sourceName.toLowerCase();
}
