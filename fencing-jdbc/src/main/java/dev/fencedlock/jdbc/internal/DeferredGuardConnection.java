package dev.fencedlock.jdbc.internal;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.util.Set;

/**
 * The connection the work of a fenced transaction gets while its guard is deferred ({@link
 * DeferredGuard}): the first {@link Connection#prepareStatement(String)} gives a statement whose
 * first execution carries the guard. Every other call that could reach the database (a plain
 * {@code Statement}, a savepoint, metadata, {@code unwrap}, a statement with generated keys or of
 * several statements) first runs the guard alone, so nothing of the transaction ever reaches the
 * database ahead of the guard. Once the guard has entered, calls go straight to the connection.
 * {@code prepareStatement(sql, TYPE_FORWARD_ONLY, CONCUR_READ_ONLY)}, which asks for the defaults
 * (Hibernate prepares its queries so), counts as {@code prepareStatement(sql)}.
 *
 * <p>Not thread-safe, like the connection it wraps.
 */
final class DeferredGuardConnection implements InvocationHandler {
    /** Calls that never reach the database, answered by the connection without the guard. */
    private static final Set<String> LOCAL = Set.of("getAutoCommit", "isClosed", "nativeSQL");

    private final Connection connection;
    private final DeferredGuard guard;
    private Connection owner;

    private DeferredGuardConnection(Connection connection, DeferredGuard guard, Connection owner) {
        this.connection = connection;
        this.guard = guard;
        this.owner = owner;
    }

    /** {@code connection} with its transaction's guard deferred to the work's first statement. */
    static Connection wrap(Connection connection, DeferredGuard guard) {
        DeferredGuardConnection handler = new DeferredGuardConnection(connection, guard, null);
        handler.owner = (Connection) Proxy.newProxyInstance(
                DeferredGuardConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
        return handler.owner;
    }

    /**
     * The calls of {@link #wrap}'s connection, for a proxy of {@code connection} that the work
     * already holds ({@code owner}, which its statements name as their connection) and that hands
     * its calls here while the guard is deferred.
     */
    static InvocationHandler handler(Connection connection, DeferredGuard guard, Connection owner) {
        return new DeferredGuardConnection(connection, guard, owner);
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        Object identity = identity(self, this, method, args);
        if (identity != null) {
            return identity;
        }
        if (!guard.entered()) {
            if (isPlainPrepare(method, args)) {
                return DeferredGuardStatement.create(connection, owner, guard, (String) args[0]);
            }
            if (!LOCAL.contains(method.getName())) {
                guard.enterAlone();
            }
        }
        return call(connection, method, args);
    }

    /**
     * {@code prepareStatement(sql)} of one statement, or the same with the default result set type
     * and concurrency spelled out: a {@code ;} anywhere sends the guard alone.
     */
    private static boolean isPlainPrepare(Method method, Object[] args) {
        return method.getName().equals("prepareStatement")
                && (args.length == 1
                        || (args.length == 3
                                && Integer.valueOf(ResultSet.TYPE_FORWARD_ONLY).equals(args[1])
                                && Integer.valueOf(ResultSet.CONCUR_READ_ONLY).equals(args[2])))
                && args[0] instanceof String sql
                && sql.indexOf(';') < 0;
    }

    @Override
    public String toString() {
        return "fenced transaction of lock '" + guard.lockName() + "' on " + connection;
    }

    /**
     * What a proxy answers for {@code equals} and {@code hashCode} (its identity) and {@code
     * toString} ({@code handler}'s), or null if {@code method} is none of them.
     */
    static Object identity(Object self, InvocationHandler handler, Method method, Object[] args) {
        return switch (method.getName()) {
            case "equals" -> args != null && args.length == 1 && self == args[0];
            case "hashCode" -> args == null ? System.identityHashCode(self) : null;
            case "toString" -> args == null ? handler.toString() : null;
            default -> null;
        };
    }

    /** Invokes {@code method} on {@code target}, throwing what it threw. */
    static Object call(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
