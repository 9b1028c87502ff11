// NetReachability: the rtnetlink monitor arrives with issue 5. This module must never import
// Foundation, so that a daemon linking only this product loads no Foundation library.
