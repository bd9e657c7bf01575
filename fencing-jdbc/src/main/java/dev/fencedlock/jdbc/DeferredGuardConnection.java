package dev.fencedlock.jdbc;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.Set;

/**
 * The connection the work of a fenced transaction gets while its guard is deferred ({@link
 * DeferredGuard}): the first {@link Connection#prepareStatement(String)} gives a statement whose
 * first execution carries the guard. Every other call that could reach the database (a plain
 * {@code Statement}, a savepoint, metadata, {@code unwrap}, a statement with generated keys or of
 * several statements) first runs the guard alone, so nothing of the transaction ever reaches the
 * database ahead of the guard. Once the guard has entered, calls go straight to the connection.
 *
 * <p>Not thread-safe, like the connection it wraps.
 */
final class DeferredGuardConnection implements InvocationHandler {
    /** Calls that never reach the database, answered by the connection without the guard. */
    private static final Set<String> LOCAL = Set.of("getAutoCommit", "isClosed", "nativeSQL");

    private final Connection connection;
    private final DeferredGuard guard;
    private Connection proxy;

    private DeferredGuardConnection(Connection connection, DeferredGuard guard) {
        this.connection = connection;
        this.guard = guard;
    }

    /** {@code connection} with its transaction's guard deferred to the work's first statement. */
    static Connection wrap(Connection connection, DeferredGuard guard) {
        DeferredGuardConnection handler = new DeferredGuardConnection(connection, guard);
        handler.proxy = (Connection) Proxy.newProxyInstance(
                DeferredGuardConnection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
        return handler.proxy;
    }

    @Override
    public Object invoke(Object self, Method method, Object[] args) throws Throwable {
        switch (method.getName()) {
            case "equals":
                return self == args[0];
            case "hashCode":
                return System.identityHashCode(self);
            case "toString":
                return "fenced transaction of lock '" + guard.lockName() + "' on " + connection;
            default:
                break;
        }
        if (!guard.entered()) {
            if (isPlainPrepare(method, args)) {
                return DeferredGuardStatement.create(connection, proxy, guard, (String) args[0]);
            }
            if (!LOCAL.contains(method.getName())) {
                guard.enterAlone();
            }
        }
        return call(connection, method, args);
    }

    /** {@code prepareStatement(sql)} of one statement: a {@code ;} anywhere sends the guard alone. */
    private static boolean isPlainPrepare(Method method, Object[] args) {
        return method.getName().equals("prepareStatement")
                && args.length == 1
                && args[0] instanceof String sql
                && sql.indexOf(';') < 0;
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
