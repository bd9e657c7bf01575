package dev.fencedlock.spring.app;

import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.Table;

/** One unit sold, written in the same transaction as the decrement. */
@Entity
@Table(name = "orders")
public class Order {
    @Id
    @GeneratedValue(strategy = GenerationType.IDENTITY)
    private Long id;

    @Column(nullable = false)
    private String sku;

    @Column(nullable = false)
    private String worker;

    @Column(nullable = false)
    private long token;

    protected Order() {}

    Order(String sku, String worker, long token) {
        this.sku = sku;
        this.worker = worker;
        this.token = token;
    }

    public String sku() {
        return sku;
    }

    public long token() {
        return token;
    }
}
