/** Word lists the dataset draws from: enough variety to look like a real CRM, small enough to read. */

export const FIRST_NAMES = [
  "Anna", "Ben", "Carla", "David", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
  "Kasia", "Luis", "Maya", "Nikolai", "Olivia", "Pedro", "Quinn", "Rosa", "Samir", "Tanya",
  "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe",
] as const;

export const LAST_NAMES = [
  "Smith", "Garcia", "Müller", "Kowalski", "Rossi", "Nguyen", "Okafor", "Tanaka", "Johansson", "Silva",
  "Dubois", "Novak", "Haddad", "Petrov", "O'Brien", "Fischer", "Moreau", "Costa", "Ivanova", "Khan",
] as const;

export const COMPANIES = [
  "Acme Corp", "Globex", "Initech", "Umbrella Logistics", "Stark Retail", "Wayne Foods", "Hooli", "Vandelay Imports",
  "Soylent Farms", "Tyrell Bio", "Cyberdyne Systems", "Wonka Sweets", "Pied Piper", "Aperture Labs", "Oscorp",
  "Nordic Timber", "Blue Harbor Hotels", "Green Valley Clinic", "Sunrise Dental", "Metro Fitness",
] as const;

export const PRODUCTS = [
  "CRM rollout", "Annual licence", "Onboarding package", "Website redesign", "Support plan",
  "Data migration", "Team training", "Hardware bundle", "Consulting days", "API integration",
] as const;

export const INDUSTRIES = ["Retail", "Healthcare", "Logistics", "Hospitality", "Manufacturing", "Software", "Education"] as const;

export const USER_ROLES = ["Sales manager", "Account executive", "Sales development rep"] as const;

/** A handful of distinct texts: the service derives one loss-reason record per distinct text. */
export const LOSS_REASONS = [
  "Price too high",
  "Chose a competitor",
  "No budget this year",
  "No response after proposal",
  "Timing: revisit next quarter",
  "Not a fit for our product",
] as const;

export const LEAD_SOURCES = ["website", "referral", "cold call", "partner", "webinar", "trade show"] as const;

export const UTM_SOURCES = ["google", "facebook", "linkedin", "newsletter"] as const;
export const UTM_MEDIUMS = ["cpc", "social", "email", "display"] as const;
export const UTM_CAMPAIGNS = ["spring_sale", "webinar_q2", "retargeting", "brand_search", "partner_launch"] as const;

export const TASK_TEXTS = [
  "Call back about the proposal",
  "Send the contract draft",
  "Prepare a demo for the team",
  "Follow up on the invoice",
  "Confirm the meeting time",
  "Ask for a reference customer",
  "Update the quote with the new discount",
] as const;

export const NOTE_TEXTS = [
  "Decision maker is the CFO, not the office manager.",
  "Wants a discount for a two-year contract.",
  "Asked for a case study in their industry.",
  "Will compare with their current vendor next week.",
  "Budget approved, waiting for procurement.",
] as const;

export const TAGS = ["hot", "enterprise", "renewal", "upsell", "vip"] as const;

export const CALL_STATUSES = { answered: "answered", missed: "no answer" } as const;
