/** Which of lead_id / contact_id a task or call links to: the lead wins, else the contact, else nothing. */
export function associate(
  leadId: string | null,
  contactId: string | null,
): { lead_id: string | null; contact_id: string | null } {
  if (leadId) return { lead_id: leadId, contact_id: null };
  if (contactId) return { lead_id: null, contact_id: contactId };
  return { lead_id: null, contact_id: null };
}
