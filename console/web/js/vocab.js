// The API's enumerations the console offers as choices, in one place.

// Event and alert severities, most severe first.
export const severities = ['critical', 'high', 'medium', 'low', 'info'];

// The verticals a lead or an MSP Hunter search can name.
export const verticals = ['healthcare', 'dental', 'legal', 'finance', 'accounting', 'insurance', 'manufacturing', 'construction',
  'education', 'nonprofit', 'government', 'retail', 'hospitality', 'real_estate', 'technology', 'logistics'];
