package dev.fencedlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method under a lease of a fenced lock, with every database transaction the
 * method begins fenced by that lease.
 *
 * <pre>{@code
 * @Locked("'inventory:' + #sku")
 * @Transactional
 * public void take(String sku, int units) { ... }
 * }</pre>
 *
 * <p>In order, for one call:
 *
 * <ol>
 *   <li>the lock name is evaluated from {@link #value()} and the lock is acquired, waiting up to
 *       {@link #waitTime()}, before any transaction begins (the advisor is ordered outside
 *       {@code @Transactional});
 *   <li>the lease is bound to the thread for the method's duration: JPA entities with a
 *       {@code @FencingToken} column are stamped and checked ({@code fencing-jpa}), and the first
 *       statement of every transaction that begins is the fence row's guard ({@code fencing-jdbc}),
 *       so {@code JdbcTemplate} and repository writes alike are refused once a newer holder has
 *       written;
 *   <li>before each such transaction commits, the lease must still be valid, else the transaction
 *       rolls back;
 *   <li>the lease is released after the method returns or throws, that is after its transaction
 *       has committed or rolled back.
 * </ol>
 *
 * <p>A refused write surfaces as {@link FencedWriteRefusedException}, an {@link
 * org.springframework.dao.OptimisticLockingFailureException}. A lock that stays taken for the whole
 * wait throws {@link dev.fencedlock.LockTimeoutException}; nothing runs. With {@link #whenTaken()}
 * {@link WhenTaken#SKIP} the call is skipped instead, ShedLock's "run only if free":
 *
 * <pre>{@code
 * @Scheduled(fixedDelay = 60_000)
 * @Locked(value = "'nightly-report'", waitTime = "0s", whenTaken = WhenTaken.SKIP)
 * public void report() { ... }          // on one instance at a time; the others skip this round
 * }</pre>
 *
 * <p>The method must not be called inside an already active transaction: the lock would then be
 * taken after the transaction began, and released before it commits. Such a call fails with {@link
 * IllegalStateException} before the lock is acquired.
 *
 * <p>Database work of the call must run in transactions: without {@code @Transactional} (or with
 * {@code SUPPORTS}), a JDBC connection requested from a {@code DataSource} bean outside any
 * transaction is refused with {@link IllegalStateException} naming the lock, since its statements
 * would run in autocommit, unfenced. Reads are refused as well; a method that touches no database,
 * or calls {@code @Transactional} methods or repositories (which begin their own, fenced,
 * transactions), is unaffected. Read-only transactions are not fenced; PostgreSQL, fencing-jpa and
 * protected tables refuse writes in them. Like every Spring proxy-based advice, a call
 * from within the same bean (self-invocation) is not intercepted. The annotation counts on the
 * method, on an interface method it implements, or on a superclass method it overrides, as Spring's
 * {@code @Transactional} does, with class-based and interface proxies alike.
 *
 * @see FencedTransactions the programmatic equivalent
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /**
     * The lock name, a SpEL expression over the method's arguments ({@code #sku}, or {@code #p0}
     * / {@code #a0} by position; parameter names need {@code -parameters}, which Spring Boot's
     * build plugins set). A constant name is written as a string literal: {@code "'nightly-report'"}.
     * The result must be a non-blank string.
     */
    String value();

    /**
     * How long to wait for the lock, written like the configuration durations ({@code 500ms},
     * {@code 5s}, {@code 2m}). {@code 0s} makes a single attempt. Default {@code 5s}.
     */
    String waitTime() default "5s";

    /**
     * A fixed lease length ({@code 10s}): the lease is not renewed and expires after this time,
     * after which the transaction can no longer commit. Empty (the default) takes an auto-renewing
     * lease of {@code fencedlock.lease-time}.
     */
    String leaseTime() default "";

    /**
     * What a call does when the lock stays taken for the whole {@link #waitTime()}. Default {@link
     * WhenTaken#FAIL}.
     */
    WhenTaken whenTaken() default WhenTaken.FAIL;

    /** What a {@link Locked} call does when it cannot get the lock within its wait. */
    enum WhenTaken {
        /** Throws {@link dev.fencedlock.LockTimeoutException}; the method does not run. */
        FAIL,
        /**
         * Skips the call: the method does not run and the caller gets {@code Optional.empty()} from a
         * method returning {@link java.util.Optional}, {@code null} from one returning another object
         * type, nothing from a {@code void} one. A method returning a primitive cannot say "skipped"
         * and is refused at its first call ({@link IllegalArgumentException}). Skips are logged at
         * DEBUG and counted by {@code fencedlock.acquire} with outcome {@code not_acquired}. Failures other than a taken lock (a backend that cannot answer, {@link
         * dev.fencedlock.LockUnavailableException}) still throw.
         */
        SKIP
    }
}
