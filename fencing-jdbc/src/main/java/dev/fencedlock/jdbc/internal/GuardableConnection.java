package dev.fencedlock.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;

/**
 * A connection held across transactions (fencing-jpa's connection provider hands Hibernate's
 * sessions these, {@link FencedTransaction#guardable}) that can carry the fence guard of its next
 * transaction with that transaction's first statement, and commit that transaction through it.
 * Unarmed, every call goes straight to the connection. {@link #arm Armed} with a transaction's
 * {@link DeferredGuard}, its calls go through {@link DeferredGuardConnection} until the guard has
 * entered: the first prepared statement carries the guard, every other call that could reach the
 * database runs the guard alone first. {@link #commitThrough Given its transaction}, its {@code
 * commit()} is that transaction's ({@link FencedTransaction#commit}, which on MariaDB puts the
 * session back in the commit's round trip) and disarms. A rollback or a close while armed ends the
 * transaction before the guard was needed: it disarms and goes straight to the connection, so that
 * Hibernate's rollback and its resetting of autocommit run no guard.
 *
 * <p>Not thread-safe, like the connection it wraps: used by the session's thread.
 */
final class GuardableConnection implements InvocationHandler {
    private final Connection connection;
    private Connection proxy;
    private DeferredGuard guard;
    private InvocationHandler deferred;
    private FencedTransaction committing;

    private GuardableConnection(Connection connection) {
        this.connection = connection;
    }

    /** {@code connection}, unarmed. */
    static Connection wrap(Connection connection) {
        GuardableConnection handler = new GuardableConnection(connection);
        handler.proxy = (Connection) Proxy.newProxyInstance(
                GuardableConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
        return handler.proxy;
    }

    /** The handler of {@code connection} if {@link #wrap} made it, else null. */
    static GuardableConnection of(Connection connection) {
        if (connection != null
                && Proxy.isProxyClass(connection.getClass())
                && Proxy.getInvocationHandler(connection) instanceof GuardableConnection handler) {
            return handler;
        }
        return null;
    }

    /** What {@link #wrap} was given for {@code connection}, or {@code connection} itself. */
    static Connection unwrapped(Connection connection) {
        GuardableConnection handler = of(connection);
        return handler == null ? connection : handler.connection;
    }

    /** The connection the guard runs on. */
    Connection target() {
        return connection;
    }

    /** Defers {@code transactionGuard} to the transaction's first statement, until {@link #disarm}. */
    void arm(DeferredGuard transactionGuard) {
        guard = transactionGuard;
        deferred = DeferredGuardConnection.handler(connection, transactionGuard, proxy);
    }

    /** Has {@code transaction} commit the connection's transaction, until {@link #disarm}. */
    void commitThrough(FencedTransaction transaction) {
        committing = transaction;
    }

    /** Whether a guard is armed and has not entered. */
    boolean pending() {
        return guard != null && !guard.entered();
    }

    /** The armed guard, or null. */
    DeferredGuard guard() {
        return guard;
    }

    void disarm() {
        guard = null;
        deferred = null;
        committing = null;
    }

    @Override
    public String toString() {
        return "fence-guardable " + connection;
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        Object identity = DeferredGuardConnection.identity(self, this, method, args);
        if (identity != null) {
            return identity;
        }
        switch (method.getName()) {
            case "close":
                disarm();
                break;
            case "rollback":
                if (args == null) {
                    disarm();
                }
                break;
            case "commit":
                if (committing != null) {
                    FencedTransaction transaction = committing;
                    disarm();
                    transaction.commit(false);
                    return null;
                }
                break;
            default:
                if (pending()) {
                    return deferred.invoke(self, method, args);
                }
                break;
        }
        return DeferredGuardConnection.call(connection, method, args);
    }
}
