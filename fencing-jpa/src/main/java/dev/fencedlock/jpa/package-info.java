/**
 * Fenced transactions for JPA entities on Hibernate ORM 7.4, on top of {@code fencing-jdbc}'s fence
 * row.
 *
 * <p>An entity opts in with a {@code long} field annotated {@link dev.fencedlock.jpa.FencingToken}
 * beside a numeric {@code @Version}, and {@code @EntityListeners(FencingListener.class)}. A
 * transaction begun with a lease bound to the thread ({@link dev.fencedlock.jpa.Fencing#bind}, or
 * {@link dev.fencedlock.jpa.Fencing#inTransaction}) runs the fence guard as its first statement:
 * the lock's transactions then run one at a time in token order, and one with an older token than a
 * registered one is refused at {@code begin()} (on PostgreSQL, where the guard travels in one round
 * trip with the transaction's first statement, at that statement). Fenced entities are stamped with the token; every
 * UPDATE and DELETE carries {@code fence = <value read>} and the version; any other write to a
 * fenced table outside such a transaction is refused. Refusals are {@link
 * dev.fencedlock.jpa.StaleFencingTokenException}s. See {@code docs/fencing-jpa.md} for the full
 * contract, the schema and the limits.
 */
package dev.fencedlock.jpa;
