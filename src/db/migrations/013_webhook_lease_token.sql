-- Each claim of a delivery gets a token of its own, kept while the claimer renews the lease. A
-- claimer that lost its lease (another took the delivery after it ran out) finds the token changed
-- and records its attempt without touching the delivery, so it never overwrites the new claimer's
-- state or frees the delivery while the other still sends it.
alter table webhook_deliveries add column lease_token uuid;
