select
    id as order_id,
    customer_id,
    amount as order_amount,
    ordered_at::date as order_date
from {{ source('shop', 'orders') }}
