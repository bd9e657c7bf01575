import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Another application with nothing of fencedlock on its class path, only a JDBC driver: runs each
 * statement given after the URL, user and password in autocommit and prints "OK" or "REFUSED
 * <SQLState> <message>" per statement. Started by ProtectedTablesIT as a separate JVM.
 */
public class SecondApplication {
    public static void main(String[] args) throws Exception {
        try (Connection connection = DriverManager.getConnection(args[0], args[1], args[2]);
                Statement statement = connection.createStatement()) {
            for (int i = 3; i < args.length; i++) {
                try {
                    statement.execute(args[i]);
                    System.out.println("OK");
                } catch (SQLException e) {
                    System.out.println("REFUSED " + e.getSQLState() + " " + e.getMessage().replace('\n', ' '));
                }
            }
        }
    }
}
