/**
 * Fenced writes for JPA entities on Hibernate ORM 7.4.
 *
 * <p>An entity opts in with a {@code long} field annotated {@link dev.fencedlock.jpa.FencingToken}
 * and {@code @EntityListeners(FencingListener.class)}. Writes of such entities need a lease bound
 * to the thread ({@link dev.fencedlock.jpa.Fencing#bind}, or {@link
 * dev.fencedlock.jpa.Fencing#inTransaction}); they are stamped with its token, and every UPDATE and
 * DELETE carries {@code fence = <value read>}, so the database refuses a write based on a read that
 * a later holder has overtaken. With the lock fence on ({@link dev.fencedlock.jpa.FencingSettings}),
 * every commit of fenced writes also advances a row per lock, which refuses any fenced write,
 * inserts included, by a holder older than one that has committed. Refusals are {@link
 * dev.fencedlock.jpa.StaleFencingTokenException}s. See {@code docs/fencing-jpa.md} for the full
 * contract, the schema and the limits.
 */
package dev.fencedlock.jpa;
