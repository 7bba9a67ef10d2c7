/** Binds a ciphertext to its workspace and connection: copied to another connection, it does not decrypt. */
export interface TokenContext {
  readonly businessAccountId: string;
  readonly connectionId: string;
}

/** Encrypts source tokens at rest (KMS in AWS). */
export interface TokenCipher {
  encrypt(plaintext: string, context: TokenContext): Promise<string>;
  decrypt(ciphertext: string, context: TokenContext): Promise<string>;
}
