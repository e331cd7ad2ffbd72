-- The identity at an OAuth 2.0 / OpenID Connect provider a user account is
-- (`ExternalLink`): the token's issuer and subject. A sign-in finds its user by these,
-- whatever name the token carries, so no two users share one. Both empty: the account
-- is linked at its next sign-in whose name claim names it, while it has no password
-- (`ExternalLink::AtNextSignIn`). Both NULL: no link.
ALTER TABLE users ADD COLUMN external_issuer {text};
ALTER TABLE users ADD COLUMN external_subject {text};
-- Before this migration a sign-in took whichever account its name claim named; the
-- accounts without a password (those made at a first sign-in, or for one) are linked
-- at their next sign-in instead. Accounts with a password are linked by an
-- administrator.
UPDATE users SET external_issuer = '', external_subject = '' WHERE password_hash IS NULL;
CREATE UNIQUE INDEX users_external ON users (external_issuer, external_subject)
    WHERE external_subject <> '';
