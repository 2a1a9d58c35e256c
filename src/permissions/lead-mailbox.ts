// The leader's view of the mailbox: every entry it writes carries `lead_sig` (docs/protocol.md#leader-signatures), signed
// with the team's key (created on first use for a team another tool wrote).
import { Mailbox, type MailboxOptions } from '../mailbox/mailbox.js';
import { ensureLeadKey, type LeadKey } from './keys.js';
import { signEntry } from './signing.js';

export async function openLeadMailbox(opts: MailboxOptions): Promise<{ mailbox: Mailbox; key: LeadKey }> {
  const key = await ensureLeadKey(opts.team);
  const mailbox = new Mailbox({
    ...opts,
    // signEntry signs only the envelope's fields (entryEnvelope): the rest of the entry is not covered.
    signLead: (entry) => signEntry(entry, key.privateKey).lead_sig,
  });
  return { mailbox, key };
}
