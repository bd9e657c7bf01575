package dev.fencedlock.spring.receiver;

import dev.fencedlock.Lease;
import dev.fencedlock.spring.CurrentLease;
import dev.fencedlock.spring.FencedBy;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The receiver's endpoints: each writes under the token its request presents for {@code orders:<order>}. */
@RestController
public class Shipments {
    private final JdbcTemplate jdbc;
    private final Parcels parcels;

    Shipments(JdbcTemplate jdbc, Parcels parcels) {
        this.jdbc = jdbc;
        this.parcels = parcels;
    }

    /** Records that {@code by} shipped {@code order}; answers with the token and backend it ran under. */
    @PostMapping("/shipments/{order}")
    @FencedBy("'orders:' + #order")
    @Transactional
    public String ship(@PathVariable String order, @RequestParam String by) {
        Lease lease = CurrentLease.get().orElseThrow();
        jdbc.update("insert into shipments (order_id, shipped_by, token) values (?, ?, ?)", order, by, lease.token());
        return lease.token() + " " + lease.backend();
    }

    /** Packs {@code order}'s parcel through JPA: a fenced entity, stamped with the presented token. */
    @PostMapping("/parcels/{order}")
    @FencedBy("'orders:' + #order")
    @Transactional
    public String pack(@PathVariable String order, @RequestParam String contents) {
        Parcel parcel = parcels.findById(order).orElseGet(() -> new Parcel(order));
        parcel.contents(contents);
        parcels.save(parcel);
        return "packed";
    }
}
