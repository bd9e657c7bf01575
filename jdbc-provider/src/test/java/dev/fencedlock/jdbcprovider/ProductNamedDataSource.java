package dev.fencedlock.jdbcprovider;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import javax.sql.DataSource;

/** An H2 in-memory data source whose metadata names another product, for the unsupported-database check. */
final class ProductNamedDataSource {
    private ProductNamedDataSource() {}

    static DataSource named(String product) {
        // through DriverManager: H2's own DataSource implements javax.naming types, which this
        // module's tests (compiled against its module descriptor) do not read
        DataSource h2 = (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (self, method, args) -> {
                    if (method.getName().equals("getConnection") && (args == null || args.length == 0)) {
                        return DriverManager.getConnection("jdbc:h2:mem:");
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return proxy(DataSource.class, h2, "getConnection", real -> {
            Connection connection = (Connection) real;
            DatabaseMetaData metaData = proxy(
                    DatabaseMetaData.class, connection.getMetaData(), "getDatabaseProductName", ignored -> product);
            return proxy(Connection.class, connection, "getMetaData", ignored -> metaData);
        });
    }

    private interface Replacement {
        Object apply(Object realResult) throws Exception;
    }

    private static <T> T proxy(Class<T> type, T real, String method, Replacement replacement) {
        return type.cast(Proxy.newProxyInstance(
                ProductNamedDataSource.class.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
                    try {
                        Object result = m.invoke(real, args);
                        return m.getName().equals(method) ? replacement.apply(result) : result;
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }));
    }
}
