package dev.fencedlock.jdbcprovider;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;

/** An H2 in-memory data source whose metadata names another product, for the unsupported-database check. */
final class ProductNamedDataSource {
    private ProductNamedDataSource() {}

    static DataSource named(String product) {
        JdbcDataSource h2 = new JdbcDataSource();
        h2.setURL("jdbc:h2:mem:");
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
