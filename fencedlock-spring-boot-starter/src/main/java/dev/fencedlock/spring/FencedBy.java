package dev.fencedlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Fences the database transactions of the annotated method with the token that the current HTTP
 * request presents for a lock, in this service's own fence table: the receiving end of a call that a
 * lock holder makes to another service ({@link dev.fencedlock.FencingHeader}).
 *
 * <pre>{@code
 * @PostMapping("/shipments/{order}")
 * @FencedBy("'orders:' + #order")
 * @Transactional
 * public Shipment ship(@PathVariable String order, @RequestBody ShipRequest request) { ... }
 * }</pre>
 *
 * <p>In order, for one call:
 *
 * <ol>
 *   <li>the lock name is evaluated from {@link #value()}, as {@link Locked#value()} is;
 *   <li>the request's {@value dev.fencedlock.FencingHeader#NAME} header is read and checked ({@link
 *       dev.fencedlock.FencingTokenCheck}, configured by {@code fencedlock.token.max-ahead}, {@code
 *       .accepted-keys.<id>}, {@code .signing-key-id}/{@code .signing-key} and {@code
 *       .require-signature}): it must carry a token for the lock, whose time part is not ahead of
 *       this service's clock by more than the allowed skew, signed where a signature is required;
 *   <li>the token is bound to the thread for the method's duration exactly as a {@code @Locked}
 *       call binds its lease: the first statement of every transaction the method begins is the
 *       guard on the lock's fence row, so a token older than the row's is refused and a newer one
 *       raises the row (refusing every older one from then on); JPA entities with a {@code
 *       @FencingToken} column are stamped with it, and protected tables accept the writes. Two
 *       calls presenting the same token run like two transactions of one lease. The wait for the
 *       fence row and the time a transaction may sit idle are bounded by {@code
 *       fencedlock.token.receiver-bound} (default 30 s).
 * </ol>
 *
 * <p>No lock is taken or released: the caller holds the lock, and the fence row is this service's
 * record of the newest holder it has seen. Inside the method, {@link CurrentLease#get()} returns
 * the presented token as a lease whose {@link dev.fencedlock.Lease#backend()} is {@code
 * "presented"}; it cannot be extended.
 *
 * <p>What the method's caller gets, nothing of the refused transaction having been committed (in a
 * Spring MVC application the starter answers with these statuses and an RFC 9457 problem body,
 * unless an {@code @ExceptionHandler} of the application handles them first):
 *
 * <ul>
 *   <li>{@link FencedWriteRefusedException} with reason {@code NEWER_TOKEN_REGISTERED}, {@code
 *       NEWER_TOKEN_READ} or {@code ENDED_BY_DATABASE}: the token is stale (HTTP 409);
 *   <li>{@link FencedWriteRefusedException} with reason {@code TOKEN_NOT_PRESENTED}: no header, no
 *       token for the lock, or the call serves no HTTP request (HTTP 428); the method did not run;
 *   <li>{@link FencedWriteRefusedException} with reason {@code TOKEN_NOT_TRUSTED}: the token's time
 *       part lies too far ahead, or its signature is missing where required, made with an unknown
 *       key, or wrong (HTTP 403); the method did not run;
 *   <li>{@link IllegalArgumentException}: the header is malformed (over 8192 characters or 64
 *       locks, a token that is not a number from 0, a lock name the rules refuse; HTTP 400); the
 *       method did not run;
 *   <li>{@link org.springframework.dao.CannotAcquireLockException}: an older transaction of the
 *       lock held the fence row for the whole bound (HTTP 503 with {@code Retry-After}).
 * </ul>
 *
 * <p>Refusals reach the {@link FenceRefusalListener} beans and the {@code fencedlock.fence.refusals}
 * meter, as those of {@code @Locked} calls do.
 *
 * <p>The rules of {@link Locked} apply here too: the method must not be called inside an active
 * transaction ({@link IllegalStateException}), its database work must run in transactions, a call
 * from within the same bean is not intercepted, and the annotation counts on the method, an
 * interface method it implements or a superclass method it overrides. The header is read on the
 * request's thread: a call made on another thread serves no request and is refused. A method may
 * not carry both {@code @FencedBy} and {@code @Locked}.
 *
 * @see Locked the holder's side, which takes the lock
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface FencedBy {

    /**
     * The lock name, a SpEL expression over the method's arguments written as for {@link
     * Locked#value()} ({@code "'orders:' + #order"}). The result must be a name the lock-name rules
     * accept, the one the caller locked.
     */
    String value();
}
