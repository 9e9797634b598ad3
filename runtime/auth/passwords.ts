/** Password hashing (bcrypt) and API-key generation. */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcryptjs';

const COST = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

/** False when no hash is stored: an account without a password cannot log in. */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (!hash) return false;
  return bcrypt.compare(password, hash);
}

/** A new API key: 64 lowercase hex characters from a CSPRNG. */
export function generateApiKey(): string {
  return randomBytes(32).toString('hex');
}
